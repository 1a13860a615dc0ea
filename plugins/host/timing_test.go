package host

import (
	"testing"
	"time"

	"github.com/btrun/btrun/plugins/sdk"
)

// TestCallTimes_shareEachRoundTrip: a batch's round trip is shared equally
// among its calls, grouped by name and kind; the shares add up to the
// round trip.
func TestCallTimes_shareEachRoundTrip(t *testing.T) {
	s := &Set{}
	walk, look := &site{times: s.callTimes("action", "walk")}, &site{times: s.callTimes("condition", "look")}
	r := &round{sites: []*site{walk, look}}
	r.batch.Sites = []sdk.Site{{Name: "walk"}, {Name: "look"}}
	r.batch.Calls = []sdk.Request{{Site: 0}, {Site: 0}, {Site: 1, Kind: sdk.KindCondition}, {Site: 0}}
	r.account(400 * time.Microsecond)
	got := s.CallTimes()
	want := []CallTime{
		{Kind: "condition", Name: "look", Calls: 1, Total: 100 * time.Microsecond},
		{Kind: "action", Name: "walk", Calls: 3, Total: 300 * time.Microsecond},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	walk.times.add(sdk.KindCancel, 1, time.Millisecond)
	if ct := s.CallTimes()[1]; ct.Cancels != 1 || ct.CancelTime != time.Millisecond || ct.Calls != 3 {
		t.Errorf("cancel: %+v", ct)
	}
}
