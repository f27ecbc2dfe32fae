package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
)

// rawStmt is a statement prepared on the writer's driver connection and run
// without database/sql. The insert of an outbox record binds up to 17 values;
// database/sql checks and copies each of them and takes two locks per call,
// which together cost about as much as SQLite's insert itself, and all of it
// runs on the one writer goroutine that every Persist waits for. A rawStmt
// takes values already in driver form, built by the caller's goroutine.
//
// Only the writer goroutine uses a rawStmt, one call at a time, and only
// through conn.Raw, which holds the connection for the duration of the call.
type rawStmt struct {
	conn *sql.Conn
	st   driver.Stmt
	exec driver.StmtExecContext

	// The call in progress. Keeping its arguments and results here, and
	// the function conn.Raw runs in call, spares each run the closure it
	// would otherwise allocate.
	args []driver.NamedValue
	res  driver.Result
	call func(any) error
}

func prepareRaw(ctx context.Context, conn *sql.Conn, query string) (*rawStmt, error) {
	r := &rawStmt{conn: conn}
	r.call = r.execRaw
	err := conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot prepare with a context", dc)
		}
		st, err := pc.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		exec, ok := st.(driver.StmtExecContext)
		if !ok {
			_ = st.Close()
			return fmt.Errorf("driver statement %T cannot execute with a context", st)
		}
		r.st, r.exec = st, exec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// run executes the statement with args, which must be driver values
// (nil, int64, string, []byte) numbered from 1.
func (r *rawStmt) run(args []driver.NamedValue) (driver.Result, error) {
	r.args = args
	err := r.conn.Raw(r.call)
	res := r.res
	r.args, r.res = nil, nil
	return res, err
}

func (r *rawStmt) execRaw(any) error {
	var err error
	// A context that is never done: mattn/go-sqlite3 would otherwise
	// start a goroutine per call to watch it.
	r.res, err = r.exec.ExecContext(context.Background(), r.args)
	return err
}

func (r *rawStmt) close() error {
	if r == nil || r.st == nil {
		return nil
	}
	err := r.conn.Raw(func(any) error { return r.st.Close() })
	if errors.Is(err, sql.ErrConnDone) {
		return nil
	}
	return err
}
