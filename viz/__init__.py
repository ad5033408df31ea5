"""Rendering for cspace: 3D meshes from part slices, animations and configuration-space plots.

``viz`` imports ``cspace``; ``cspace`` never imports ``viz``.
"""
