# placeholder: single-zone solver tests (adi_common + sp)
