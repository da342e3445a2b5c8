(** Finite sums over ℤ and their elementary algebra (no axioms).

    [sumz n f] is f 0 + … + f (n−1); [bsum] is the same sum computed with the machine-word
    integers of [Bignums] (fast under [vm_compute]), and [bsum_spec] says they agree. *)
From Coq Require Import ZArith Lia.
From Bignums Require Import BigZ.
Open Scope Z_scope.

Fixpoint sumz (n : nat) (f : nat -> Z) : Z :=
  match n with O => 0 | S m => sumz m f + f m end.

Lemma sumz_ext n f g : (forall i, (i < n)%nat -> f i = g i) -> sumz n f = sumz n g.
Proof.
  induction n; intros H; simpl; [reflexivity|].
  rewrite IHn by (intros; apply H; lia). rewrite (H n) by lia. reflexivity.
Qed.

Lemma sumz_add n f g : sumz n (fun i => f i + g i) = sumz n f + sumz n g.
Proof. induction n; simpl; [reflexivity|]. rewrite IHn. ring. Qed.

Lemma sumz_scale n c f : sumz n (fun i => c * f i) = c * sumz n f.
Proof. induction n; simpl; [ring|]. rewrite IHn. ring. Qed.

Lemma sumz_zero n : sumz n (fun _ => 0) = 0.
Proof. induction n; simpl; [reflexivity|]. rewrite IHn. reflexivity. Qed.

Lemma sumz_swap n m f :
  sumz n (fun i => sumz m (fun j => f i j)) = sumz m (fun j => sumz n (fun i => f i j)).
Proof.
  induction n; simpl.
  - symmetry. apply sumz_zero.
  - rewrite IHn. rewrite <- sumz_add. reflexivity.
Qed.

Lemma sumz_le n f g : (forall i, (i < n)%nat -> f i <= g i) -> sumz n f <= sumz n g.
Proof.
  induction n; intros H; simpl; [lia|].
  assert (sumz n f <= sumz n g) by (apply IHn; intros; apply H; lia).
  assert (f n <= g n) by (apply H; lia). lia.
Qed.

Lemma sumz_nonneg n f : (forall i, (i < n)%nat -> 0 <= f i) -> 0 <= sumz n f.
Proof. intros H. rewrite <- (sumz_zero n). apply sumz_le. exact H. Qed.

Lemma sumz_pos n f k : (forall i, (i < n)%nat -> 0 <= f i) -> (k < n)%nat -> 0 < f k ->
  0 < sumz n f.
Proof.
  induction n; intros H Hk Hf; [lia|]. simpl.
  destruct (Nat.eq_dec k n) as [->|Hne].
  - assert (0 <= sumz n f) by (apply sumz_nonneg; intros; apply H; lia). lia.
  - assert (0 < sumz n f) by (apply IHn; [intros; apply H; lia | lia | exact Hf]).
    assert (0 <= f n) by (apply H; lia). lia.
Qed.

Lemma sumz_delta n i g :
  sumz n (fun j => if Nat.eqb i j then g j else 0) = if Nat.ltb i n then g i else 0.
Proof.
  induction n; simpl; [destruct i; reflexivity|]. rewrite IHn.
  destruct (Nat.eqb i n) eqn:E.
  - apply Nat.eqb_eq in E; subst.
    rewrite (proj2 (Nat.ltb_ge n n)) by lia. rewrite (proj2 (Nat.ltb_lt n (S n))) by lia. ring.
  - apply Nat.eqb_neq in E.
    destruct (Nat.ltb i n) eqn:L.
    + apply Nat.ltb_lt in L. rewrite (proj2 (Nat.ltb_lt i (S n))) by lia. ring.
    + apply Nat.ltb_ge in L. rewrite (proj2 (Nat.ltb_ge i (S n))) by lia. ring.
Qed.

Lemma sumz_prod n a b :
  sumz n (fun i => sumz n (fun j => a i * b j)) = sumz n a * sumz n b.
Proof.
  rewrite (sumz_ext n _ (fun i => a i * sumz n b)) by (intros; apply sumz_scale).
  rewrite (sumz_ext n _ (fun i => sumz n b * a i)) by (intros; ring).
  rewrite sumz_scale. ring.
Qed.

Lemma cross_term (a b e : Z) : - Z.abs e * (a * a + b * b) <= 2 * (a * e * b).
Proof.
  destruct (Z.abs_spec e) as [[H1 H2]|[H1 H2]]; rewrite H2.
  - assert (0 <= e * ((a + b) * (a + b))) by (apply Z.mul_nonneg_nonneg; [lia|apply Z.square_nonneg]).
    replace (- e * (a * a + b * b)) with (2 * (a * e * b) - e * ((a + b) * (a + b))) by ring. lia.
  - assert (0 <= (- e) * ((a - b) * (a - b))) by (apply Z.mul_nonneg_nonneg; [lia|apply Z.square_nonneg]).
    replace (- - e * (a * a + b * b)) with (2 * (a * e * b) - (- e) * ((a - b) * (a - b))) by ring. lia.
Qed.

(** The machine-integer sum. *)
Fixpoint bsum (n : nat) (f : nat -> bigZ) : bigZ :=
  match n with O => 0%bigZ | S m => (bsum m f + f m)%bigZ end.

Lemma bsum_spec n f : [bsum n f]%bigZ = sumz n (fun i => [f i]%bigZ).
Proof. induction n; simpl; [reflexivity|]. rewrite BigZ.spec_add, IHn. reflexivity. Qed.
