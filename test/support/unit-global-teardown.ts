import { removeRunScratch } from './run-scratch';

export default function teardown(): void {
  removeRunScratch('unit');
}
