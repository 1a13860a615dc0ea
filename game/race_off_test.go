//go:build !race

package game

const raceOn = false
