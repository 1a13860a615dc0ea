// Package treegen writes big behavior trees for the loading benchmarks and
// for measuring `btrun tree` on them: what a large game's tree looks like,
// repeated until it has the asked number of rules.
//
// The root is a choice of platoons (choices with ids), each a choice of
// squads (sequences with dotted ids, so full ids grow to four parts), each
// squad a tactic choice of actions with parameters (not in name order) and
// conditions on declared variables, a timestamp and registered names, a
// flanking sequence and rules without ids (labelled by position). The file
// declares variables, signals and timestamps. Every name the tree uses is
// in Actions, Conditions or the file's declarations, so the tree binds with
// a registry that registers those.
package treegen

import (
	"bytes"
	"strconv"
)

// Actions and Conditions are the names a generated tree calls.
var (
	Actions    = []string{"attack", "moveTo", "wait", "shoot", "reload", "report", "idle"}
	Conditions = []string{"canSee", "inRange"}
)

const header = `<?xml version="1.0" encoding="UTF-8"?>
<behaviorTree xmlns="https://dragondreams.ch/behaviortree">
  <variables>
    <variable name="alert0"/>
    <variable name="alert1" default="true"/>
    <variable name="alert2"/>
    <variable name="alert3"/>
    <variable name="hasAmmo" default="true"/>
  </variables>
  <signals>
    <signal name="OnAlarm" variable="alert0" value="true"/>
    <signal name="OnAllClear" variable="alert0" value="false"/>
    <signal name="OnEnemySeen"/>
    <signal name="OnNoTarget"/>
  </signals>
  <timestamps>
    <timestamp name="TargetSpotted" setOnSignal="OnEnemySeen" exclusiveTo="TargetLost"/>
    <timestamp name="TargetLost" setOnSignal="OnNoTarget"/>
  </timestamps>
  <choice id="root">
`

// squadRules is the number of rules one squad adds.
const squadRules = 10

// Tree returns a tree file of exactly rules rules (at least 1).
func Tree(rules int) []byte {
	var b bytes.Buffer
	b.Grow(rules * 130)
	b.WriteString(header)
	left := rules - 1 // the root
	for p := 0; left > 0; p++ {
		b.WriteString(`    <choice id="platoon`)
		b.WriteString(strconv.Itoa(p))
		b.WriteString("\">\n")
		left--
		for s := 0; s < 10 && left >= squadRules; s++ {
			squad(&b, p*10+s, s)
			left -= squadRules
		}
		if left < squadRules { // the last platoon: single rules fill the count
			for ; left > 0; left-- {
				b.WriteString("      <action name=\"idle\"><parameter name=\"seconds\">1</parameter></action>\n")
			}
		}
		b.WriteString("    </choice>\n")
	}
	b.WriteString("  </choice>\n</behaviorTree>\n")
	return b.Bytes()
}

// squad writes one squad: squadRules rules.
func squad(b *bytes.Buffer, g, s int) {
	n := strconv.Itoa(g)
	b.WriteString(`      <sequence id=".squad` + strconv.Itoa(s) + `" loop="false">
        <condition>alert` + strconv.Itoa(g%4) + `</condition>
        <choice id=".tactic">
          <action id=".attack" name="attack">
            <parameter name="range">12.5</parameter>
            <parameter name="weapon">rifle</parameter>
            <condition>canSee</condition>
            <condition>!TargetLost.moreThan</condition>
            <parameter name="TargetLost.moreThan">5</parameter>
          </action>
          <sequence id=".flank">
            <action name="moveTo"><parameter name="target">cover ` + n + `</parameter><parameter name="speed">4</parameter></action>
            <action name="wait"><parameter name="seconds">0.5</parameter></action>
            <action id=".shoot" name="shoot" doNotFail="true">
              <condition>hasAmmo</condition>
              <condition>inRange</condition>
              <conditionMode>allTrue</conditionMode>
            </action>
          </sequence>
          <action id=".reload" name="reload"><condition>!hasAmmo</condition></action>
          <success/>
        </choice>
        <action name="report"><parameter name="message">squad ` + n + ` done</parameter><parameter name="channel">radio</parameter></action>
      </sequence>
`)
}
