"""Reading and writing: mechanism files (TOML, DXF profiles) into the model, and files written
whole or not at all. Above the model; below everything that computes.
"""
