package sig

import (
	"fmt"
	"strings"
)

// goConv writes the Go conversions between the values package codec
// decodes (int64, *big.Int, float64, bool, string, []byte, []any,
// map[string]any, nil) and the Go types of a declaration (GoType), for
// the solution's glue and the evaluator's typed client alike: for each
// type used, tether_from_N (a decoded value to the type; the error names
// where inside it, through tether_bad and tether_at, which the caller
// writes) and tether_to_N (the type to a value the codec encodes). Every
// identifier it writes starts with tether, which declared names cannot.
type goConv struct {
	d        *Declaration
	exported bool   // records spelt as exported names (the client)
	big      string // what "math/big" is imported as
	strconv  string // what "strconv" is imported as
	ids      map[string]int
	order    []*Type
	starts   []int // the line of b where write began each type's code
}

func newGoConv(d *Declaration, exported bool, big, strconv string) *goConv {
	return &goConv{d: d, exported: exported, big: big, strconv: strconv, ids: map[string]int{}}
}

// id is the number of t's conversions, registering t (and what it holds)
// on first use.
func (c *goConv) id(t *Type) int {
	key := t.String()
	if n, ok := c.ids[key]; ok {
		return n
	}
	n := len(c.order)
	c.ids[key] = n
	c.order = append(c.order, t)
	switch t.Kind {
	case List, Map, Optional:
		c.id(t.Elem)
	case Record:
		if r := c.d.Record(t.Name); r != nil {
			for _, f := range r.Fields {
				c.id(f.Type)
			}
		}
	}
	return n
}

// typeAt is the type whose code write wrote at line (nil: none).
func (c *goConv) typeAt(line int) *Type {
	var t *Type
	for i, start := range c.starts {
		if start <= line {
			t = c.order[i]
		}
	}
	return t
}

// from is the call converting the decoded value expr to t.
func (c *goConv) from(t *Type, expr string) string {
	return fmt.Sprintf("tether_from_%d(%s)", c.id(t), expr)
}

// to is the call converting expr, of t's Go type, to a codec value.
func (c *goConv) to(t *Type, expr string) string {
	return fmt.Sprintf("tether_to_%d(%s)", c.id(t), expr)
}

// write writes the conversions of every type registered so far (and of
// those they hold). The code needs "math/big" and "strconv", imported as
// c.big and c.strconv.
func (c *goConv) write(b *strings.Builder) {
	for i := 0; i < len(c.order); i++ { // c.order grows while writing
		t := c.order[i]
		c.starts = append(c.starts, strings.Count(b.String(), "\n")+2)
		gt := goType(t, c.exported, c.big)
		fmt.Fprintf(b, "\nfunc tether_from_%d(tether_v any) (tether_r %s, tether_err error) {\n", i, gt)
		bad := fmt.Sprintf("\treturn tether_r, tether_bad(tether_v, %q)\n", Describe(t))
		switch t.Kind {
		case Int, Bool, String, Bytes:
			fmt.Fprintf(b, "\tif tether_x, tether_ok := tether_v.(%s); tether_ok {\n\t\treturn tether_x, nil\n\t}\n%s", gt, bad)
		case BigInt:
			fmt.Fprintf(b, "\tswitch tether_x := tether_v.(type) {\n\tcase int64:\n\t\treturn "+c.big+".NewInt(tether_x), nil\n"+
				"\tcase *"+c.big+".Int:\n\t\treturn tether_x, nil\n\t}\n%s", bad)
		case Float:
			fmt.Fprintf(b, "\tswitch tether_x := tether_v.(type) {\n\tcase float64:\n\t\treturn tether_x, nil\n\tcase int64:\n\t\treturn float64(tether_x), nil\n"+
				"\tcase *"+c.big+".Int:\n\t\ttether_f, _ := "+c.big+".NewFloat(0).SetInt(tether_x).Float64()\n\t\treturn tether_f, nil\n\t}\n%s", bad)
		case List:
			fmt.Fprintf(b, "\ttether_l, tether_ok := tether_v.([]any)\n\tif !tether_ok {\n\t%s\t}\n\ttether_r = make(%s, len(tether_l))\n"+
				"\tfor tether_i, tether_e := range tether_l {\n\t\tif tether_r[tether_i], tether_err = %s; tether_err != nil {\n"+
				"\t\t\treturn nil, tether_at(tether_err, \"[\"+"+c.strconv+".Itoa(tether_i)+\"]\")\n\t\t}\n\t}\n\treturn tether_r, nil\n",
				bad, gt, c.from(t.Elem, "tether_e"))
		case Map:
			fmt.Fprintf(b, "\ttether_m, tether_ok := tether_v.(map[string]any)\n\tif !tether_ok {\n\t%s\t}\n\ttether_r = make(%s, len(tether_m))\n"+
				"\tfor tether_k, tether_e := range tether_m {\n\t\tif tether_r[tether_k], tether_err = %s; tether_err != nil {\n"+
				"\t\t\treturn nil, tether_at(tether_err, \"[\"+"+c.strconv+".Quote(tether_k)+\"]\")\n\t\t}\n\t}\n\treturn tether_r, nil\n",
				bad, gt, c.from(t.Elem, "tether_e"))
		case Optional:
			fmt.Fprintf(b, "\tif tether_v == nil {\n\t\treturn nil, nil\n\t}\n\ttether_x, tether_err := %s\n\tif tether_err != nil {\n"+
				"\t\treturn nil, tether_err\n\t}\n\treturn &tether_x, nil\n", c.from(t.Elem, "tether_v"))
		case Record:
			fmt.Fprintf(b, "\ttether_m, tether_ok := tether_v.(map[string]any)\n\tif !tether_ok {\n\t%s\t}\n", bad)
			r := c.d.Record(t.Name)
			if len(r.Fields) == 0 {
				b.WriteString("\t_ = tether_m\n")
			}
			for j, name := range GoFields(r) {
				f := r.Fields[j]
				// A missing field decodes as null: absent for an optional.
				fmt.Fprintf(b, "\tif tether_r.%s, tether_err = %s; tether_err != nil {\n\t\treturn tether_r, tether_at(tether_err, %q)\n\t}\n",
					name, c.from(f.Type, fmt.Sprintf("tether_m[%q]", f.Name)), "."+f.Name)
			}
			b.WriteString("\treturn tether_r, nil\n")
		default: // any
			b.WriteString("\treturn tether_v, nil\n")
		}
		b.WriteString("}\n")

		fmt.Fprintf(b, "\nfunc tether_to_%d(tether_x %s) any {\n", i, gt)
		switch t.Kind {
		case BigInt, Optional:
			// A nil pointer is null (in an interface it would not be nil).
			b.WriteString("\tif tether_x == nil {\n\t\treturn nil\n\t}\n")
			if t.Kind == Optional {
				fmt.Fprintf(b, "\treturn %s\n", c.to(t.Elem, "*tether_x"))
			} else {
				b.WriteString("\treturn tether_x\n")
			}
		case Bytes:
			b.WriteString("\tif tether_x == nil {\n\t\treturn []byte{}\n\t}\n\treturn tether_x\n")
		case List:
			fmt.Fprintf(b, "\ttether_l := make([]any, len(tether_x))\n\tfor tether_i, tether_e := range tether_x {\n\t\ttether_l[tether_i] = %s\n\t}\n\treturn tether_l\n",
				c.to(t.Elem, "tether_e"))
		case Map:
			fmt.Fprintf(b, "\ttether_m := make(map[string]any, len(tether_x))\n\tfor tether_k, tether_e := range tether_x {\n\t\ttether_m[tether_k] = %s\n\t}\n\treturn tether_m\n",
				c.to(t.Elem, "tether_e"))
		case Record:
			b.WriteString("\treturn map[string]any{\n")
			r := c.d.Record(t.Name)
			for j, name := range GoFields(r) {
				fmt.Fprintf(b, "\t\t%q: %s,\n", r.Fields[j].Name, c.to(r.Fields[j].Type, "tether_x."+name))
			}
			b.WriteString("\t}\n")
		default:
			b.WriteString("\treturn tether_x\n")
		}
		b.WriteString("}\n")
	}
}
