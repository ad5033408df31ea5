"""Test support: random mechanisms for property tests and the fuzz report (:mod:`.fuzz`),
releases with closed forms (:mod:`.releases`), the draws both make (:mod:`.draws`), and
the checks the tests share beside the library's own oracle (:mod:`.oracles`).
"""
