"""Advice from measured runs: the best configuration per app (advise), the overlap model
(model), what a profile says (profile) and the mesh-splitting calculator (meshsplit)."""
