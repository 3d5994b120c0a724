// npm scripts run on the Node 22 binary of the node@22 devDependency (node_modules/.bin comes
// first on their PATH), matching Lambda's runtime; aws-local-stepfunctions needs it. Fail early,
// with the fix, when that binary is missing (e.g. its install script was not allowed to run).
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `Node ${process.versions.node} is running npm's scripts; Node 22 is required. Run \`npm ci\` ` +
      '(it installs Node 22 into node_modules/.bin through the node@22 package).',
  );
  process.exit(1);
}
