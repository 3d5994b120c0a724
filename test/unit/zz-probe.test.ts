import { addPaymentSchema } from '#shared/schemas';
import { validator } from '#shared/validation';
import { isWholeCents } from '#domain/money';
const v = validator(addPaymentSchema);
const b = (o: object) => ({ paymentGroupId: '01890a5d-ac96-774b-bcce-b302099a8057', profileId: 'a/b', amount: 1, ...o });
it('probe', () => {
  for (const o of [{ customAttributes: { x: { n: 1 } } }, { customAttributes: { x: 'y'.repeat(1001) } }, { customAttributes: { x: null } }, { amount: 1e-9 }, { amount: 19.990000001 }, { amount: 0.005 }, { amount: 113298.68 }, {amount: 0.011}, {amount: 1e-7}]) {
    try { v(b(o)); console.log(JSON.stringify(o).slice(0, 60), 'OK'); } catch (e) { console.log(JSON.stringify(o).slice(0, 60), (e as Error).message); }
  }
  let bad = 0;
  for (let c = 1; c <= 99999999; c += 1) if (!isWholeCents(c / 100)) bad++;
  console.log('bad', bad);
});
