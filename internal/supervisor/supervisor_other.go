//go:build !unix

package supervisor
