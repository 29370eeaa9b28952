package receipts

import "testing"

func TestModeLists(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Dedupes() {
		if seen[d.String()] || d.Words() == "" {
			t.Errorf("dedupe %d: name %q repeated or no words", d, d)
		}
		seen[d.String()] = true
		if got, err := ParseDedupe(d.String()); err != nil || got != d {
			t.Errorf("ParseDedupe(%q) = %v, %v", d, got, err)
		}
	}
	if DedupeNames("|") != "off|check|claim" {
		t.Errorf("DedupeNames = %q", DedupeNames("|"))
	}
	seen = map[string]bool{}
	d := Delivery{Event: "ev-1", Job: 3, Order: "order-77", Run: "ab12cd34", Attempt: 2}
	values := map[string]Key{}
	for _, k := range Keys() {
		if seen[k.String()] || k.Words() == "" {
			t.Errorf("key %d: name %q repeated or no words", k, k)
		}
		seen[k.String()] = true
		if got, err := ParseKey(k.String()); err != nil || got != k {
			t.Errorf("ParseKey(%q) = %v, %v", k, got, err)
		}
		v, ok := k.Of(d)
		if !ok {
			t.Errorf("key %s has no value", k)
		}
		if (v == "") != (k == KeyNone) {
			t.Errorf("key %s sends %q", k, v)
		}
		if other, dup := values[v]; dup && v != "" {
			t.Errorf("keys %s and %s send the same value %q", other, k, v)
		}
		values[v] = k
	}
	if _, ok := Key(200).Of(d); ok {
		t.Error("a key outside the list has a value")
	}
	if KeyNames("|") != "none|event|job|order|run|attempt" {
		t.Errorf("KeyNames = %q", KeyNames("|"))
	}
}
