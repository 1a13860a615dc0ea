module github.com/btrun/btrun

go 1.26
