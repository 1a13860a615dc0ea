package runtime

import (
	"strings"
	"testing"
	"time"
)

// TestDataFromDecoded_convertsDecodedDocuments: what TOML and JSON decoders
// give becomes data: maps sorted, arrays as lists from 1, nil entries left
// out; what cannot be sent is an error naming its path.
func TestDataFromDecoded_convertsDecodedDocuments(t *testing.T) {
	v, err := DataFromDecoded(map[string]any{"who": "grunt-2", "at": []any{4.5, int64(-2), nil, true}, "none": nil,
		"kids": []map[string]any{{"hp": float64(3)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DataText(v, 200), `{at = {[1] = 4.5, [2] = -2, [4] = true}, kids = {[1] = {hp = 3}}, who = "grunt-2"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if v, err := DataFromDecoded(nil); err != nil || v.Kind != NilValue {
		t.Errorf("nil: %v %v", v, err)
	}
	deep := any(1.0)
	for range 10000 { // refused at depth 17, without walking the rest
		deep = []any{deep}
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{deep, "data[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1]: tables nested more than 16 deep"},
		{map[string]any{"n": int64(1<<53 + 1)}, "data.n: 9007199254740993 is beyond 2^53"},
		{[]any{time.Unix(0, 0)}, "data[1]: a date or time cannot be sent"},
		{[]any{[]int{1}}, "data[1]: a value of type []int cannot be sent"},
	} {
		if _, err := DataFromDecoded(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
