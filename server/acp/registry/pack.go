package registry

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// file is one member of an archive.
type file struct {
	name string
	mode os.FileMode
	data []byte
}

// Pack writes, into dist, each platform's archive from the binary the
// release built there (agent-lsp-GOOS-GOARCH[.exe]), then agent.json and
// icon.svg as the registry takes them, and archives.sha256 (each
// archive's checksum, sha256sum's format). It returns the entry. level is
// gzip's compression level (gzip.BestCompression for a release; a test
// that only unpacks takes a faster one).
func Pack(dist, version, baseURL string, level int) (Agent, error) {
	entry := Entry(version, baseURL)
	doc, err := json.MarshalIndent(entry, "", "  ")
	if err != nil {
		return entry, err
	}
	doc = append(doc, '\n')
	var sums strings.Builder
	for _, p := range Platforms {
		name, err := packOne(dist, version, p, doc, level)
		if err != nil {
			return entry, err
		}
		sum, err := fileSum(filepath.Join(dist, name))
		if err != nil {
			return entry, err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, name)
	}
	for name, data := range map[string][]byte{"agent.json": doc, "icon.svg": Icon, "archives.sha256": []byte(sums.String())} {
		if err := os.WriteFile(filepath.Join(dist, name), data, 0o644); err != nil {
			return entry, err
		}
	}
	return entry, nil
}

// packOne writes p's archive and returns its name.
func packOne(dist, version string, p Platform, doc []byte, level int) (string, error) {
	exe := "agent-lsp-" + p.GOOS + "-" + p.GOARCH
	if p.GOOS == "windows" {
		exe += ".exe"
	}
	bin, err := os.ReadFile(filepath.Join(dist, exe))
	if err != nil {
		return "", fmt.Errorf("the %s binary: %w", p.Target, err)
	}
	sum := sha256.Sum256(bin)
	files := []file{
		{p.Binary(), 0o755, bin},
		{p.Binary() + ".sha256", 0o644, []byte(hex.EncodeToString(sum[:]) + "  " + p.Binary() + "\n")},
		{"agent.json", 0o644, doc},
		{"icon.svg", 0o644, Icon},
	}
	name := p.Archive(version)
	out, err := os.Create(filepath.Join(dist, name))
	if err != nil {
		return "", err
	}
	if p.GOOS == "windows" {
		err = writeZip(out, files, level)
	} else {
		err = writeTarGz(out, files, level)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return name, err
}

// stamp is every member's time: archives of the same binaries are the
// same bytes.
var stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func writeTarGz(w io.Writer, files []file, level int) error {
	gz, err := gzip.NewWriterLevel(w, level)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: int64(f.mode), Size: int64(len(f.data)), ModTime: stamp, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []file, level int) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) { return flate.NewWriter(out, level) })
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: stamp}
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
