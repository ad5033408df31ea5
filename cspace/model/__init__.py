"""The model layer: plain immutable values (the mechanism, its parts and coordinates), geometry,
the tolerance policy, poses, and the checks every mechanism must pass. Imports nothing above it.
"""
