package report

import "reflect"

// RedactStrings replaces, in place, every string v reaches (through
// pointers, struct fields, slices, arrays and map values) with redact's
// result: a report's transcript, failures, errors and tape, whatever its
// type. v must be a non-nil pointer; map keys are left as they are. A nil
// redact changes nothing.
func RedactStrings(v any, redact func(string) string) {
	if redact == nil {
		return
	}
	redactValue(reflect.ValueOf(v), redact)
}

func redactValue(v reflect.Value, redact func(string) string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			redactValue(v.Elem(), redact)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactValue(v.Field(i), redact)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			redactValue(v.Index(i), redact)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() == reflect.String {
				v.SetMapIndex(k, reflect.ValueOf(redact(e.String())).Convert(e.Type()))
				continue
			}
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			redactValue(c, redact)
			v.SetMapIndex(k, c)
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				v.SetString(redact(s))
			}
		}
	}
}
