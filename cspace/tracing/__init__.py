"""The engine: the analysis a trace starts from, mechanism regions, simple dynamics, friction,
the tracer, and the results it freezes (pieces, segments, the trace).
"""
