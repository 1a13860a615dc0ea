module github.com/btrun/btrun

go 1.26

require github.com/BurntSushi/toml v1.6.0 // indirect
