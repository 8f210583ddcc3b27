# placeholder: the shared ADI numerics and the SP solver define target hkmz_numerics here
