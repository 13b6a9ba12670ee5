// Property tests run from one seed so CI is deterministic; explore new inputs with
// FC_SEED=random npm test (a failure prints its seed to replay it).
import fc from 'fast-check';

const seed = process.env.FC_SEED;
if (seed !== 'random') fc.configureGlobal({ seed: seed === undefined ? 20261121 : Number(seed) });
