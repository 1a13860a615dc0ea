package game

import (
	"context"
	"log/slog"
	"math"
	"strings"
)

// A program gives the game a *slog.Logger (Options.Logger) to get its lines
// for people as records of its own log rather than text on Stdout: the
// printer (output.go) hands each line over with its time and agent, and
// what is written as text (Lua's print, the whole texts of long errors)
// goes through a slogWriter.

// slogWriter makes each Write a record of log at level, its text the
// bytes written less a final newline, with a "source" attribute.
type slogWriter struct {
	log    *slog.Logger
	level  slog.Level
	source string
}

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.LogAttrs(context.Background(), w.level, strings.TrimSuffix(string(p), "\n"), slog.String("source", w.source))
	return len(p), nil
}

// logTime is a record's game time, t, rounded to the microsecond as people
// read it: step × dt is 1.4000000000000001 at step 14 of 0.1.
func logTime(t float64) slog.Attr {
	return slog.Float64("t", math.Round(t*1e6)/1e6)
}

// pluginLevel is the Logger's level of a plugin's line.
func pluginLevel(level string) slog.Level {
	switch level {
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
