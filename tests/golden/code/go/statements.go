// Package ledger serves account statements.
package ledger

import (
	"context"
	"fmt"
)

const statementsQuery = `SELECT id, amount FROM entries
WHERE account_id = $1 { -- not a brace that counts
ORDER BY created_at`

// Statement is one account statement line.
type Statement struct {
	ID     string
	Amount int64 // cents; "}" in a comment
}

// Store reads statements; PLAT-137 added the (account_id, created_at) index.
type Store interface {
	Statements(ctx context.Context, account string) ([]Statement, error)
}

// Render formats a statement line.
func (s Statement) Render() string {
	return fmt.Sprintf("%s: %d {cents}", s.ID, s.Amount)
}

func Total(lines []Statement) int64 {
	var total int64
	for _, l := range lines {
		if l.Amount > 0 {
			total += l.Amount
		}
	}
	r := '}'
	_ = r
	return total
}
