"""Configuration spaces: pair spaces and the builders that make them (translating, turning,
shifting along z), their cache and worker processes, linkage tables, the memory budget.
"""
