package result

// The budgets a run can run out of, as Cut.Budget names them.
const (
	BudgetSteps  = "steps"
	BudgetWork   = "sqlite"
	BudgetPolls  = "polls"
	BudgetOutput = "output"
)

// Cut says that a run stopped because it passed its budget, and which.
type Cut struct {
	// Budget is BudgetSteps, BudgetWork, BudgetPolls or BudgetOutput.
	Budget string `json:"budget"`
	// Limit is that field of the budget.
	Limit int64 `json:"limit"`
	// Auto is true when the budget was the interpreter's AutoBudget.
	Auto bool `json:"auto"`
}

// Spent is what a run spent, in the units of the interpreter's Budget.
type Spent struct {
	Steps  int
	Work   int64
	Polls  int
	Output int
}
