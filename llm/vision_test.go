package llm

import "testing"

// Only local vision families are guessed from the name: a hosted model's
// name ("o3", "o4" in unrelated names) says nothing here.
func TestSeesImages(t *testing.T) {
	for model, want := range map[string]bool{
		"llava:13b": true, "qwen2.5vl:7b": true, "llama3.2-vision": true, "gemma3:12b": true,
		"qwen2.5-coder": false, "gpt-3.5-turbo": false, "deepseek-coder-v2": false, "codestral": false,
		"phi4-mini-o3-distill": false, "mistral-o4": false,
	} {
		if got := SeesImages(model); got != want {
			t.Errorf("SeesImages(%q) = %v, want %v", model, got, want)
		}
	}
}
