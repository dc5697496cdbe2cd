//go:build tools

// Package tools pins the FerretDB release that scripts/services builds for local and CI runs
// (a MongoDB wire-protocol server on SQLite, used wherever no mongod or MONGODB_URI is given).
package tools

import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
