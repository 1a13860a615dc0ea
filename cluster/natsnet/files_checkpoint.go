package natsnet

import "github.com/btrun/btrun/cluster"

// FileStore is the object store of the run's own name, btrun-files-RUN
// (kept when the run ends, as DropFiles says): where a checkpoint's files
// stay, by hash, for a recovery or a -resume on a link of another name.
func (s *Store) FileStore() cluster.FileStore { return objectFiles{s.nc, s.run} }
