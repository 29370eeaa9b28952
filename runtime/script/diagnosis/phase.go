package diagnosis

// Phase returns the phase the run entered last.
func (r *Record) Phase() Phase { return r.phase }
