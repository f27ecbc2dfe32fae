package registry

// Locality says who can share what a store keeps: validation warns
// about a store that loses data at stop, or that the instances of a
// clustered deployment cannot all reach, from its factory's locality
// rather than from its type name.
type Locality int

// Localities, narrowest first.
const (
	// LocalityUnknown: the factory does not say.
	LocalityUnknown Locality = iota
	// LocalityProcess: the data lives as long as the process.
	LocalityProcess
	// LocalityHost: the processes of one host can share the data.
	LocalityHost
	// LocalityCluster: instances on several hosts can share the data.
	LocalityCluster
)

// Localized is implemented by store factories that state their
// locality.
type Localized interface {
	Locality() Locality
}

// WithLocality returns f stating locality l.
func WithLocality(f StoreFactory, l Locality) StoreFactory { return localized{f, l} }

type localized struct {
	StoreFactory
	l Locality
}

func (f localized) Locality() Locality { return f.l }

// LocalityOf returns the locality f states, or LocalityUnknown.
func LocalityOf(f Factory) Locality {
	if l, ok := f.(Localized); ok {
		return l.Locality()
	}
	return LocalityUnknown
}
