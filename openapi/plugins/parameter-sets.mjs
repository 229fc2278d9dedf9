// Redocly plugin: parameter sets. OpenAPI shares one parameter between operations (a `$ref`) but
// not a list of them, so the filters every transport list takes were listed, one `$ref` each, in
// three operations. An operation may name a set instead:
//
//   x-parameters:
//     $ref: ../components/parameter-sets/TransportListFilters.yaml
//
// A set is a map from a component name to a parameter (its definition, or a `$ref` to a parameter
// file named as the component). Redocly reads the set as parameters (the `ParameterSet` type
// below), so `pnpm lint` checks each one as it checks any parameter, duplicates with the
// operation's own included. When the contract is bundled, the `expand` decorator puts the set's
// parameters first in each naming operation's `parameters`, as `$ref`s to
// `#/components/parameters/<name>` (inline in a dereferenced document, as `redocly respect` reads
// it), and moves the inline definitions there: the bundle, and
// everything made from it (types, SDK, docs, mock, the release gate), sees plain OpenAPI.
const EXTENSION = 'x-parameters';
const COMPONENT = '#/components/parameters/';

function expand() {
  /** Inline definitions by component name, put into `components.parameters` on leaving the root. */
  const hoisted = new Map();
  return {
    Operation: {
      leave(operation, ctx) {
        const set = operation[EXTENSION];
        if (set === undefined) return;
        delete operation[EXTENSION];
        // A dereferenced document (what `redocly respect` reads) has its parameters inline: the
        // set's stay inline there too. A bundled one refers to components.
        const own = operation.parameters ?? [];
        const dereferenced = own.length > 0 && own.every((p) => typeof p.$ref !== 'string');
        const refs = Object.entries(set).map(([name, parameter]) => {
          if (dereferenced && typeof parameter.$ref !== 'string') return parameter;
          if (typeof parameter.$ref === 'string') {
            if (parameter.$ref !== `${COMPONENT}${name}`)
              throw new Error(`${ctx.location.pointer}: the set names ${parameter.$ref} "${name}": name it as its file`);
            return { $ref: parameter.$ref };
          }
          const known = hoisted.get(name);
          if (known !== undefined && JSON.stringify(known) !== JSON.stringify(parameter))
            throw new Error(`${ctx.location.pointer}: two different parameters named "${name}"`);
          hoisted.set(name, parameter);
          return { $ref: `${COMPONENT}${name}` };
        });
        operation.parameters = [...refs, ...own];
      },
    },
    Root: {
      leave(root) {
        if (hoisted.size === 0) return;
        root.components ??= {};
        root.components.parameters ??= {};
        for (const [name, parameter] of hoisted) {
          const existing = root.components.parameters[name];
          if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(parameter))
            throw new Error(`components.parameters.${name} exists already: a set's inline parameter needs a name of its own`);
          root.components.parameters[name] = parameter;
        }
      },
    },
  };
}

export default function parameterSets() {
  return {
    id: 'parameter-sets',
    typeExtension: {
      oas3(types) {
        return Object.assign({}, types, {
          ParameterSet: { name: 'ParameterSet', properties: {}, additionalProperties: 'Parameter' },
          Operation: Object.assign({}, types.Operation, {
            properties: Object.assign({}, types.Operation.properties, { [EXTENSION]: 'ParameterSet' }),
          }),
        });
      },
    },
    decorators: { oas3: { expand } },
  };
}
