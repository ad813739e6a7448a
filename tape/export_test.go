package tape

// WrapOpaque is wrapOpaque, for the tests of package tape_test.
var WrapOpaque = wrapOpaque
