package finding

// ReleaseNote is what the report says of the pull request's release note
// it was given: the headers of its blocks, never their text (written by
// the change's author).
type ReleaseNote struct {
	// Blocks are the headers of the note's blocks in their order
	// ("breaking operator", "other operator NONE"); empty when the note
	// has none.
	Blocks []string `json:"blocks"`
}
