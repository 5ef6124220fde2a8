package llm

import "strings"

// visionModels are name parts of the vision models local servers serve
// (Ollama, LM Studio, llama.cpp, vLLM), which no catalog lists. Hosted
// models are the catalog's to say (config.Settings.SeesImages).
var visionModels = []string{
	"vision", "llava", "-vl", "vl-", "vl:", "2.5vl", "gemma3", "pixtral", "minicpm-v", "moondream",
}

// SeesImages guesses, by its name, whether a model the catalog does not
// know takes images in user messages: one not known to is sent none, and
// the user is told.
func SeesImages(model string) bool {
	m := strings.ToLower(model)
	for _, v := range visionModels {
		if strings.Contains(m, v) {
			return true
		}
	}
	return false
}
