// Package formatspec describes the tree format as data, for tools: each
// tag with its attributes, what it holds and a description of each, plus
// the tags a program's registered rules add. The reference page and the
// XML schema (internal/reference), validate and the live view's editor
// palette are made from it.
//
// It is engine-side: a game that embeds btrun never needs it, and its
// shape may change with the format. The attributes and tags come from the
// loader's own lists (runtime.LoaderFormat), and a test probes the loader
// with every one of them, so the descriptions cannot drift from what the
// loader does.
package formatspec
