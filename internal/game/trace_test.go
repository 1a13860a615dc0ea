package game

import (
	"encoding/json"
	"testing"
)

func TestAppendString_isValidJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "new\nline\ttab\x01", "caf\u00e9 \u2603", "bad\xffbyte"} {
		b := appendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
			continue
		}
		if want := string([]rune(s)); back != want && s != "bad\xffbyte" {
			t.Errorf("%q -> %s -> %q", s, b, back)
		}
	}
}

func TestAppendTime_hidesFloatNoise(t *testing.T) {
	for in, want := range map[float64]string{3 * 0.1: "0.3", 0: "0", 2: "2", 60 * 0.1: "6", 1.25: "1.25"} {
		if got := string(AppendTime(nil, in)); got != want {
			t.Errorf("%v -> %s, want %s", in, got, want)
		}
	}
}
