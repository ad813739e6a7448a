package tools

import (
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the validator's messages in English, independent of the
// machine's locale.
var printer = message.NewPrinter(language.English)
