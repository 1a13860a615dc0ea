package host

import (
	"os"
	"path/filepath"

	"github.com/btrun/btrun/internal/tempfile"
)

// maxSocketPath is the longest Unix socket path every Unix takes (108
// bytes on Linux, 104 on the BSDs and macOS, with the terminating zero).
const maxSocketPath = 103

// socketName is as long as the longest name go-plugin gives a socket
// (os.CreateTemp's "plugin" and up to 10 digits).
const socketName = "/plugin0123456789"

// socketDir makes the folder where a Set's plugins make their Unix sockets
// (go-plugin's PLUGIN_UNIX_SOCKET_DIR): a plugin killed mid-run cannot
// remove its socket, and before, each such kill left a file in the system's
// temporary folder for good. The folder is the Set's own and Close removes
// it; tempfile.Dir removes those of a btrun that was killed itself. It is
// made in the system's temporary folder, or, where that folder's path is
// so long that a socket's path inside a folder of ours would be longer than
// a Unix socket takes, in /tmp; where neither is short enough, the plugins
// make their sockets in the temporary folder itself, as go-plugin does by
// default ("").
func socketDir() (string, error) {
	const name = "btrun-sock"
	for _, base := range []string{os.TempDir(), "/tmp"} {
		longest := filepath.Join(base, tempfile.Name(name)) + socketName
		if len(longest) > maxSocketPath {
			continue
		}
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			continue
		}
		return tempfile.DirIn(base, name)
	}
	return "", nil
}
