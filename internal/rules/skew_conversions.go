package rules

import (
	"slices"
	"strings"
)

// What VERSION_SKEW reads of a version's conversions: the markers that
// opt a version or a field out of conversion-gen, and the hand-written
// conversion functions a change added.

// droppedConversionGen describes the +k8s:conversion-gen marker the
// change removed from the version's package, when it did: conversion-gen
// no longer converts the version, its author converts it by hand
// (descheduler #999 moved its internal DeschedulerPolicy to the next
// version's shape and converted v1alpha1 in code); "" otherwise.
func droppedConversionGen(x skewPV) string {
	if x.pd.Base == nil || x.pd.Head == nil || x.pd.Base.ConversionGen == "" || x.pd.Head.ConversionGen != "" {
		return ""
	}
	return "+k8s:conversion-gen=" + x.pd.Base.ConversionGen + " removed"
}

// conversionOptOut reports a version that keeps a field the change
// removed from the others, marked +k8s:conversion-gen=false at head:
// conversion-gen leaves it out on purpose, what the version still accepts
// is not converted (kOps kept v1alpha2's unused AccessLogSpec.Interval
// for existing manifests and stopped converting it).
func conversionOptOut(x skewPV, fname string) bool {
	if x.td.Head == nil {
		return false
	}
	f := x.td.Head.Field(fname)
	if f == nil {
		return false
	}
	v, ok := f.Markers.Get("k8s:conversion-gen")
	return ok && strings.Trim(v, `"`) == "false"
}

// newConversion names the hand-written conversion functions of the
// version's type that head has and base did not have in that form (new,
// or rewritten), in either direction (kubeone added v1beta2's conversion
// into the internal version beside the unchanged one out of it), declared
// in the version's package or in another version's of the group (a
// hub-and-spoke API converts in the spoke's package: CAPI RKE2's
// Convert_v1beta1_RKE2ConfigStatus_To_v1beta2_RKE2ConfigStatus is
// v1beta2's conversion too); "" when there is none.
func newConversion(x skewPV, group []skewPV) string {
	if x.pd.Head == nil {
		return ""
	}
	var fns []string
	for _, y := range group {
		if y.pd.Head == nil {
			continue
		}
		for fn, fp := range y.pd.Head.ConversionsOf(x.pd.Head.Name, x.td.Head.Name) {
			if y.pd.Base == nil || y.pd.Base.Conversions[fn] != fp {
				fns = append(fns, fn)
			}
		}
	}
	slices.Sort(fns)
	return strings.Join(slices.Compact(fns), ", ")
}
