autocmd BufRead,BufNewFile *.sap setfiletype sap
