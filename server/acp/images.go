package acp

import (
	"encoding/base64"
	"fmt"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
)

// Images in a prompt (a pasted screenshot) go to a model that sees them,
// on either provider; for one that does not, the turn says so and the
// model is told an image was left out.

// imageTypes are the image types both providers take.
var imageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// maxImage caps one image's bytes (the providers take ~20 MB a request).
const maxImage = 5 << 20

// imageOf reads an image block; a bad one is the client's error.
func imageOf(b *sdk.ContentBlockImage) (llm.Image, error) {
	if !slices.Contains(imageTypes, b.MimeType) {
		return llm.Image{}, invalid(fmt.Sprintf("image of type %s: agent-lsp takes PNG, JPEG, WebP and GIF", quote(b.MimeType)))
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil || len(data) == 0 {
		return llm.Image{}, invalid("image data is not base64")
	}
	if len(data) > maxImage {
		return llm.Image{}, invalid(fmt.Sprintf("image of %d bytes: at most %d", len(data), maxImage))
	}
	return llm.Image{MIMEType: b.MimeType, Data: data}, nil
}

// imagesFor is the prompt and images for the model of settings: as they
// are when it sees images (config.Settings.SeesImages), else without them,
// the user told why and the model told that something was left out.
func (t *turn) imagesFor(settings config.Settings, prompt string, images []llm.Image) (string, []llm.Image) {
	if len(images) == 0 || settings.SeesImages() {
		return prompt, images
	}
	model := settings.Model
	t.message(fmt.Sprintf("agent-lsp: %s does not take images, so the %d attached were left out; pick a vision model in the model menu to send them.\n\n", model, len(images)))
	return prompt + fmt.Sprintf("\n\n(The user attached %d image(s), which were left out: the model in use cannot see images.)", len(images)), nil
}
