package mqtt

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// sharePrefix starts a shared subscription: $share/<group>/<filter>.
const sharePrefix = "$share/"

// checkTopicName accepts a topic a message can be published to.
func checkTopicName(t string) error {
	if err := checkUTF8(t); err != nil {
		return err
	}
	if strings.ContainsAny(t, "+#") {
		return errors.New("a topic name may not contain the wildcards + or #")
	}
	return nil
}

// checkFilter accepts a subscription topic filter, shared or not.
func checkFilter(f string) error {
	if err := checkUTF8(f); err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(f, sharePrefix); ok {
		group, filter, found := strings.Cut(rest, "/")
		if !found || group == "" || strings.ContainsAny(group, "+#") || filter == "" {
			return errors.New("a shared subscription is $share/<group>/<filter> with a group free of + and #")
		}
		f = filter
	}
	levels := strings.Split(f, "/")
	for i, l := range levels {
		switch {
		case l == "#" && i != len(levels)-1:
			return errors.New("# must be the last level of a filter")
		case l == "#", l == "+":
		case strings.ContainsAny(l, "+#"):
			return errors.New("+ and # must fill a whole level")
		}
	}
	return nil
}

func checkUTF8(s string) error {
	switch {
	case s == "":
		return errors.New("must not be empty")
	case len(s) > 65535:
		return errors.New("must be at most 65535 bytes")
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return errors.New("must be UTF-8 without NUL")
	}
	return nil
}

// filterOf strips the $share/<group>/ prefix from a subscription.
func filterOf(sub string) string {
	if rest, ok := strings.CutPrefix(sub, sharePrefix); ok {
		if _, filter, found := strings.Cut(rest, "/"); found {
			return filter
		}
	}
	return sub
}

// matchTopic reports whether topic matches filter (without a $share
// prefix). Topics starting with $ match only filters that name that first
// level explicitly.
func matchTopic(filter, topic string) bool {
	if strings.HasPrefix(topic, "$") && (strings.HasPrefix(filter, "+") || strings.HasPrefix(filter, "#")) {
		return false
	}
	for {
		fl, frest, fmore := strings.Cut(filter, "/")
		if fl == "#" {
			return true
		}
		tl, trest, tmore := strings.Cut(topic, "/")
		if fl != "+" && fl != tl {
			return false
		}
		switch {
		case !fmore && !tmore:
			return true
		case !tmore:
			// "a/#" also matches "a".
			return frest == "#"
		case !fmore:
			return false
		}
		filter, topic = frest, trest
	}
}
