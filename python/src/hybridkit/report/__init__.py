"""The HTML report of a run set (`hybridkit report`, `study`): document.write_report assembles
it from sections, one module per family of figures (apps, bench, dsm, layout, profile,
simulate, split, temporal, twolevel) built from the pieces in parts (figures drawn by
hybridkit.plot), and the terminal summary of a study or sweep (summary)."""
