// The import rules of booksync's layout, checked by `npm run lint` (dependency-cruiser reads the real
// import graph). The layer rules leave type-only imports apart: they are erased at build time, so they may
// point to any layer. No import cycle is allowed, type-only ones included (no-circular below).
//
// Layers, lowest first. A module may import its own layer and the layers below it, never one above.
const layers = [
  // Pure helpers every layer may use; workflow-safe code imports nothing Node-only (rule below).
  ['src/workflow-safe', 'src/logging', 'src/telemetry', 'src/config'],
  // The service's contract in code: schemas, client, errors, signatures.
  ['src/service'],
  // The ledger (its port, stores, mappings, exports).
  ['src/ledger'],
  // The accounting targets: they read the ledger, the ledger never imports them.
  ['src/targets'],
  // Accounting features over the ledger and the service.
  ['src/close', 'src/payouts', 'src/resync'],
  // The flows, one folder each (src/flows/<flow>/): workflow, contract, state, steps and activities (their
  // contracts are what the edges below import).
  ['src/flows'],
  // The edges and the composition root: ingress, console, command API, Temporal's binaries and payload codec,
  // CLI, start-up (src/runtime: the worker, Temporal set-up, the targets' connections), demo.
  [
    'src/ingress',
    'src/console',
    'src/command-api',
    'src/temporal',
    'src/cli',
    'src/runtime',
    'src/demo',
    'bin',
  ],
];
const folder = (dirs) => `^(${dirs.join('|')})/`;

// Workflow code: what the bundle's entry (src/flows/workflows.ts) may reach. In a flow's folder its workflow
// and what that workflow is made of: workflow.ts, contract.ts, state.ts, steps.ts, and the check deposit's
// applications and returned-check fee, the reconciliation's requests; the helpers the workflows share
// (src/flows/in-workflow/); src/workflow-safe/. Everything else in a flow's folder (its activities and their
// contract, the push's attempt, outbox index and wake-up) is worker-side code the workflows may not import.
const workflowCode =
  '^(src/workflow-safe/.*|src/flows/(workflows|in-workflow/[^/]+|[^/]+/(workflow|contract|state|steps|applications|returned-check-fee|requests)))\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'workflow-code-imports-workflow-safe-only',
      comment:
        "Workflow code runs in the workflow sandbox and is bundled into every workflow context: as values it imports only workflow code, src/workflow-safe/ and the SDK's workflow packages (never zod, the service's schemas or Node-only code). Types may come from anywhere.",
      severity: 'error',
      from: { path: workflowCode },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot: [workflowCode, '^node_modules/@temporalio/(workflow|common)/'],
      },
    },
    ...layers.slice(0, -1).map((layer, i) => ({
      name: `no-upward-import-from-${layer.join('+').replaceAll('/', '-')}`,
      comment: `${layer.join(', ')} may import only its own layer and those below it (.dependency-cruiser.cjs lists the layers).`,
      severity: 'error',
      from: { path: folder(layer) },
      to: { path: folder(layers.slice(i + 1).flat()), dependencyTypesNot: ['type-only'] },
    })),
    {
      name: 'packages-stand-alone',
      comment:
        "A package under packages/ is a project of its own (its package.json names what it depends on): it imports its own files and its dependencies, never booksync's src/, test/, bench/, scripts/ or bin/.",
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^(src|test|bench|scripts|bin)/' },
    },
    {
      name: 'packages-by-name',
      comment:
        "A package reaches another package only through its name (@booksync/<name>/...), as a dependency its package.json lists, never by a relative path into the other's files.",
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypes: ['local'] },
    },
    {
      name: 'no-circular',
      comment:
        'An import cycle makes start-up order matter and the layers meaningless. Type-only imports count too: modules tied by their types are one module in two files, and a type-only import turns into a value import with one edit. Types two modules share live with the module that owns them or in a module of their own (ingress-app.ts, close-input.ts, accounting-target-contract.ts).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
