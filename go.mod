module github.com/btrun/btrun

go 1.26

require (
	github.com/yuin/gopher-lua v1.1.2
	layeh.com/gopher-luar v1.0.11
)
