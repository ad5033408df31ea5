"""Reports of a trace: the Figure 4 description, JSON, the sampled path, Table 2. Formatting
only.
"""
