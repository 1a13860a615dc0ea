package sdk

import (
	"os"
	"strconv"
	"time"
)

// LifelineEnv names the environment variable through which the host passes
// the file descriptor of its lifeline: the read end of a pipe whose write
// end only the host holds. When the host dies, however it dies, the kernel
// closes the write end and the plugin reads end-of-file.
const LifelineEnv = "BTRUN_PLUGIN_LIFELINE_FD"

// parentPoll is how often the plugin checks that its parent is alive when
// no lifeline is given.
const parentPoll = 250 * time.Millisecond

// watchHost makes the plugin exit when its host dies. go-plugin does not do
// this: a plugin whose host was killed with SIGKILL would serve nobody
// forever. Two watches, either is enough:
//   - the lifeline pipe (LifelineEnv), closed by the kernel when the host
//     dies, seen at once;
//   - the parent pid: when it changes, the plugin has been re-parented
//     because its host is gone.
func watchHost() {
	if fd, err := strconv.Atoi(os.Getenv(LifelineEnv)); err == nil && fd > 2 {
		if f := os.NewFile(uintptr(fd), "btrun-lifeline"); f != nil {
			go func() {
				buf := make([]byte, 1)
				for {
					if _, err := f.Read(buf); err != nil {
						hostGone("lifeline closed")
					}
				}
			}()
		}
	}
	ppid := os.Getppid()
	if ppid <= 1 {
		return // started by init: there is no host to watch
	}
	go func() {
		for range time.Tick(parentPoll) {
			if os.Getppid() != ppid {
				hostGone("parent process gone")
			}
		}
	}()
}

func hostGone(why string) {
	logf("warn", "host is gone (%s): exiting", why)
	os.Exit(3)
}
