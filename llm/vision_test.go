package llm

import "testing"

func TestSeesImages(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4.1-mini": true, "gpt-4o": true, "gemini-2.5-flash": true, "llava:13b": true, "qwen2.5vl:7b": true, "llama3.2-vision": true,
		"qwen2.5-coder": false, "gpt-3.5-turbo": false, "deepseek-coder-v2": false, "codestral": false,
	} {
		if got := SeesImages(model); got != want {
			t.Errorf("SeesImages(%q) = %v, want %v", model, got, want)
		}
	}
}
