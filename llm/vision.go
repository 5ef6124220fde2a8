package llm

import "strings"

// visionModels are name parts of the models that take images: OpenAI's
// since gpt-4o, Gemini, and the vision models local servers serve.
var visionModels = []string{
	"gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4", "gemini", "vision", "llava", "-vl", "vl-", "vl:", "2.5vl", "gemma3", "pixtral", "minicpm-v", "moondream",
}

// SeesImages says whether model takes images in user messages, by its
// name: one not known to is sent none, and the user is told.
func SeesImages(model string) bool {
	m := strings.ToLower(model)
	for _, v := range visionModels {
		if strings.Contains(m, v) {
			return true
		}
	}
	return false
}
