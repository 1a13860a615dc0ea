// Package reference generates btrun's reference documentation and editor
// schemas from the declarations the code itself uses, so that they cannot
// drift: docs/reference.md (every tag and attribute, built-in action and
// condition with its parameters, config key and trace key),
// editor/behaviortree.xsd (an XML Schema of the tree format) and
// editor/config.schema.json (a JSON Schema of config.toml).
//
// The sources are formatspec.Tags, the registry's built-ins (runtime and
// luabind's bt.lua), runtime.DeclaredConditions and runtime.RuleParams,
// game.ConfigKeys and game.TraceLines. `go test ./internal/reference` fails
// when a generated file is out of date; `go test ./internal/reference
// -update` rewrites them.
package reference
