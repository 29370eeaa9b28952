package sim

// Kill ends p now, as SIGKILL ends a process: a process asleep, or not
// started yet, wakes at once and returns without taking another step (its deferred calls run,
// and the processes waiting for it in Join go on). A process behind a
// shield ([Proc.Shield]) goes on until it lifts the shield, and ends
// there. Killing a process that has returned, or one killed already,
// does nothing. p must not be the process that calls Kill.
func (k *Kernel) Kill(p *Proc) {
	if p.done || p.killed {
		return
	}
	p.killed = true
	if p.shielded {
		return
	}
	for i := range k.ready {
		if k.ready[i].p == p {
			k.ready[i].at = k.now
			return
		}
	}
}

// Shielded reports whether p is behind a shield.
func (p *Proc) Shielded() bool { return p.shielded }

// Killed reports whether p has been killed.
func (p *Proc) Killed() bool { return p.killed }

// Shield holds off a Kill of p until Unshield: for a stretch of the
// process that stands for work that goes on elsewhere whatever becomes of
// it, like a request that has left and is being handled by the service.
func (p *Proc) Shield() { p.shielded = true }

// Unshield lifts the shield; if p was killed behind it, p ends here.
func (p *Proc) Unshield() {
	p.shielded = false
	if p.killed {
		panic(stopped{})
	}
}
