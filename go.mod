module github.com/btrun/btrun

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/yuin/gopher-lua v1.1.2
	layeh.com/gopher-luar v1.0.11
)
