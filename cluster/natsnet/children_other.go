//go:build !linux

package natsnet

import "syscall"

// Without Linux's parent-death signal, a shard learns that its conductor is
// gone from NATS: the run's bye, or its connection.
func childAttr() *syscall.SysProcAttr { return nil }
