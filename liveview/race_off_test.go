//go:build !race

package liveview

const raceOn = false
