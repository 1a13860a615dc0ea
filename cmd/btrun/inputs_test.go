package main

import (
	"strings"
	"testing"
)

// TestParseInput_dataAfterAnySpace: a signal's data is the rest of its
// line after four fields, whatever space ends them (a no-break space or a
// vertical tab cut the fields as a blank does).
func TestParseInput_dataAfterAnySpace(t *testing.T) {
	for _, line := range []string{
		"3 signal all Alarm {\"level\": 2}",
		"3 signal all\u00a0Alarm {\"level\": 2}",
		"3\vsignal all Alarm\t{\"level\": 2}",
		"3 signal\u2003all Alarm\u00a0{\"level\": 2}",
	} {
		in, err := parseInput(line)
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if in.after != 3 || in.op != "signal" || in.to != "all" || in.name != "Alarm" || in.data.Get("level").Num() != 2 {
			t.Errorf("%q: %+v", line, in)
		}
	}
}

// FuzzParseInput: any line is an input or an error naming it, never a
// panic.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		"0 signal grunt-1 Hurt 5",
		"12 add scout-9 patrol",
		"12 remove scout-9",
		"1 signal all\u00a0x 5",
		"1 signal all x\v\"text with  spaces\"",
		"99999999999999999999 signal a b",
		"1 signal a b [1, {\"x\": [true]}]",
		"1 signal a b {",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		in, err := parseInput(strings.TrimSpace(line))
		if err != nil {
			return
		}
		if in.op != "signal" && in.op != "add" && in.op != "remove" {
			t.Fatalf("%q: op %q", line, in.op)
		}
	})
}
