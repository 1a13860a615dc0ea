package natsnet

import (
	"context"
	"errors"
	"fmt"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go/jetstream"
)

// Inputs is a run's journal of inputs from outside (a cluster.Journal):
// the JetStream stream btrun-input-RUN on the subject btrun.RUN.input, in
// file storage like the checkpoints, deleted with them (Store.Drop). Every
// append expects the stream's last message to be the last this journal
// read or wrote, so that a conductor that another replaced cannot add to
// its successor's journal once that one wrote (cluster.ErrFenced).
type Inputs struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	run     string
	subject string
	last    uint64 // the stream's last sequence as this journal knows it
}

func inputStream(run string) string { return "btrun-input-" + run }

// Inputs opens (or makes) the run's journal of inputs.
func (s *Store) Inputs(so StoreOptions) (*Inputs, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	subject := "btrun." + s.run + ".input"
	st, err := s.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: inputStream(s.run), Subjects: []string{subject},
		Storage: jetstream.FileStorage, Replicas: so.Replicas})
	if err != nil {
		return nil, fmt.Errorf("natsnet: the input journal of run %s: %w", s.run, err)
	}
	j := &Inputs{js: s.js, stream: st, run: s.run, subject: subject}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("natsnet: the input journal of run %s: %w", s.run, err)
	}
	j.last = info.State.LastSeq
	return j, nil
}

// dropInputs deletes the run's journal of inputs.
func (s *Store) dropInputs(ctx context.Context) error {
	if err := s.js.DeleteStream(ctx, inputStream(s.run)); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("natsnet: deleting the input journal of run %s: %w", s.run, err)
	}
	return nil
}

func (j *Inputs) Append(in cluster.Input) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	ack, err := j.js.Publish(ctx, j.subject, cluster.AppendInput(nil, &in), jetstream.WithExpectLastSequence(j.last))
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
			return 0, fmt.Errorf("%w (run %s's input journal): %w", cluster.ErrFenced, j.run, err)
		}
		return 0, fmt.Errorf("natsnet: journaling an input of run %s: %w", j.run, err)
	}
	j.last = ack.Sequence
	return ack.Sequence, nil
}

// each calls f with every journaled input, in order, until f says stop.
func (j *Inputs) each(ctx context.Context, f func(in cluster.Input) (more bool)) error {
	info, err := j.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("natsnet: the input journal of run %s: %w", j.run, err)
	}
	j.last = info.State.LastSeq
	for seq := info.State.FirstSeq; seq != 0 && seq <= info.State.LastSeq; seq++ {
		m, err := j.stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("natsnet: reading input %d of run %s: %w", seq, j.run, err)
		}
		in, err := cluster.DecodeInput(m.Data)
		if err != nil {
			return fmt.Errorf("natsnet: input %d of run %s: %w", seq, j.run, err)
		}
		in.Seq = seq
		if !f(in) {
			break
		}
	}
	return nil
}

func (j *Inputs) From(from uint64) ([]cluster.Input, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	var out []cluster.Input
	err := j.each(ctx, func(in cluster.Input) bool {
		if in.Step >= from {
			out = append(out, in)
		}
		return true
	})
	return out, err
}

func (j *Inputs) Prune(step uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	keep := uint64(0) // the first input to keep; 0: none
	if err := j.each(ctx, func(in cluster.Input) bool {
		if in.Step >= step {
			keep = in.Seq
			return false
		}
		return true
	}); err != nil {
		return err
	}
	var opts []jetstream.StreamPurgeOpt
	if keep != 0 {
		opts = append(opts, jetstream.WithPurgeSequence(keep))
	}
	if err := j.stream.Purge(ctx, opts...); err != nil {
		return fmt.Errorf("natsnet: pruning the input journal of run %s: %w", j.run, err)
	}
	return nil
}
